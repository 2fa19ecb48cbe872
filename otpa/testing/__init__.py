"""otpa.testing."""
