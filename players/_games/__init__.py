"""Code the bots of the other games share (not a bot itself): `search`, the iterative-deepening
alpha-beta driver."""
