"""The search shared by the bots of the games other than Connect-X (`search.Search`): seen by
every sandboxed bot, and part of the code fingerprint of the bots in a game folder of players/."""
