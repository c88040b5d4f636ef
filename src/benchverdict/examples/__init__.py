"""Built-in example data."""
