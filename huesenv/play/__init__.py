"""A person plays Hues and Cues in a window against agents (``huesenv play``): an application on the env."""
