"""The web app's routes by area, each module's `routes` list: `auth` (log in and out),
`submissions` (uploads and a version's pages), `games` (the leaderboard, games, replays, logs)
and `admin` (the admin pages and the teacher's downloads)."""
