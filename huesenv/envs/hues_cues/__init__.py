"""Hues and Cues: rules (no RL framework), the PettingZoo env, adapters to the agent protocol, the game loop."""
