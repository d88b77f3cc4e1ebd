"""The competition core (issue #38): what the tournament and the league share. The settings of
play (`settings`), the pairing policies (`pairing`) and the executors that play a batch of games
sit here, below `arena.tournament` and `arena.league` and above the referee and the results."""
