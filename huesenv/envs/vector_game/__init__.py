"""The whole game vectorised: thousands of complete games stepped together as arrays (numpy or torch).

* :mod:`~huesenv.envs.vector_game.game` — :class:`HuesCuesVectorGame`, the batched rules (PGX shape);
* :mod:`~huesenv.envs.vector_game.gym` — :class:`HuesCuesVectorEnv` (Gymnasium ``VectorEnv``,
  ``make_vec("huesenv/Guesser-v1" | "huesenv/CueGiver-v1", vectorization_mode="vector_entry_point")``)
  and :class:`SelfPlayVectorEnv` (batched multi-agent API);
* :mod:`~huesenv.envs.vector_game.encode` — the ``hues_cues_v1`` flat observation, batched (dense, or sparse
  ``(index, value)`` for an EmbeddingBag first layer; ``to_dense`` converts);
* :mod:`~huesenv.envs.vector_game.opponents` — opponents as tables (built by ``huesenv.agents.vector_tables``);
* :mod:`~huesenv.envs.vector_game.record` — games as standard game logs;
* :mod:`~huesenv.envs.vector_game.check` — the replay through the rules state machine;
* :mod:`~huesenv.envs.vector_game.arrays` — the numpy/torch operations the rest is written against.
"""
