"""The Linux packages: engines staged from Debian packages, a .tar.gz and a .deb."""
