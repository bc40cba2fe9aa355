"""This computer on the local network: its addresses and ports, checks of hosts and of a peer."""
