"""Negation-resolution metrics: the *SEM 2012 scorer and the NIS metrics, with their intervals."""
