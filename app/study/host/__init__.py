"""This computer: its snapshot, Wi-Fi link, CPU load, traffic shaping and servers."""
