"""DSE: performance distributions after Jordan, Cohen & Thomas (2018)."""
