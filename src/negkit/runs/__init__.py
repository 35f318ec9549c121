"""Run plumbing: the run store, answering requests through it, data-parallel groups, run folder files."""
