"""Data shipped with the package: ``boards.yaml``, the board sets (the same file as the
checkout's configs/boards.yaml; read when there is no checkout, see
`arena.tournament.config.configs_dir`)."""
