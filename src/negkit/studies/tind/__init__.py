"""TIND's studies: the generator (:mod:`.generator`), the transfer runs (:mod:`.transfer`) and the human-evaluation
sheets (:mod:`.human_eval`)."""
