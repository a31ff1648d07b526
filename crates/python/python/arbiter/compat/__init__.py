"""Drop-in replacements for other Python game environments, backed by Arbiter's engines."""
