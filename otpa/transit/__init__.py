"""otpa.transit."""
