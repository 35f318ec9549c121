"""The library behind negkit's commands (eval, score, compare, report, leaderboard, export): they know no
benchmark and ask the suite registry."""
