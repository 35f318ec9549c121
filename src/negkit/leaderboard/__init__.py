"""``negkit leaderboard``: a static, offline site ranking every model on every task from ``negkit eval`` run folders
(:mod:`.site`: the numbers and the files; :mod:`.pages` and :mod:`.sections`: its HTML; :mod:`.tables`: its
Markdown; :mod:`.published`: the papers' own numbers beside negkit's; :mod:`.scaling`: scores against model size).
It sits above the commands and reads runs through them and the kit's typed run log."""
