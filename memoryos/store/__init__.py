"""Storage: the port (base.py) and its backends."""
