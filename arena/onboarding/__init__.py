"""Helping a newcomer write a bot: discovery of the bots in `players/` (`discovery.py`), the
conformance check behind `cxarena check-bot` (`conformance.py`), and `cxarena new-bot`'s
scaffold with its templates (`scaffold.py`, `templates/`).

Must not live here: the referee or the tournament machinery (used, not defined, here).
"""
