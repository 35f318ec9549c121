"""The LM Evaluation Harness: its results layout, and the helpers of every benchmark's task export."""
