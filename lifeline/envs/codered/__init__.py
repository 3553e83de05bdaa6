"""``codered``: multi-hospital mass-casualty coordination in Prakashnagar (see README.md)."""
