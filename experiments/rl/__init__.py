"""Learning agents: ``huesenv train`` (SB3 MaskablePPO, a fast CleanRL-style PPO, self-play) and the emergent-lexicon science.

Modules load torch / SB3 lazily: importing this package is light.
"""
