"""otpa.transit.raptor."""
