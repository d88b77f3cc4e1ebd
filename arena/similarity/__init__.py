"""Who copied whom: code similarity (`arena.similarity.code`) and play similarity
(`arena.similarity.play`) between bots, for the person running a league or a tournament
(issue #41). `arena.similarity.report` puts both together (`compare`, `league_similarity`);
`arena.similarity.store` keeps a league's last run (DIR/similarity.json) for the admin pages,
and `arena.similarity.view` lays two versions side by side for them (the matched code marked,
the positions where they agreed). `arena.similarity.positions` says where each board's
positions come from (a published, solver-made set, else the league's own games).
`arena.similarity.answers` keeps each version's play answers once per board (league.sqlite),
and `arena.similarity.background` asks each new version in the league server's background,
within the league's `similarity_budget_s`.

A flag asks for a conversation, not a verdict: docs/league.md says what the scores mean and
what they do not prove. Students never see any of it.

Layer: with `league` and `report` (it reads the league's submissions and runs bots through
the referee, never through a launcher of its own).
"""
