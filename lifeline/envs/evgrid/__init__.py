"""EV charging on a feeder-constrained Bangalore grid (``lifeline/EVGrid-v0``)."""
