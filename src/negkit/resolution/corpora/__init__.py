"""The negation-resolution corpora: CD-SCO (CoNLL), BioScope and SFU (XML), read into one instance format."""
