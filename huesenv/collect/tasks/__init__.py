"""The three collection tasks: word→cell (:mod:`.words`), GCA trials (:mod:`.gca`), board tessellation (:mod:`.tessellation`).

Each module holds the task's rules and storage and nothing about HTTP, so the
rules are testable without a server and the web layer stays thin.
"""
