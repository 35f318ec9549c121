"""The papers behind NaN-NLI and MNLI-neg (``negkit cite``)."""

#: NaN-NLI (Truong et al., 2022): the test suite, and the paper whose Table 5 scores MNLI-neg.
NAN_NLI_BIBTEX = r"""@inproceedings{truong2022,
  title = {Not another Negation Benchmark: The {NaN-NLI} Test Suite for Sub-clausal Negation},
  author = {Truong, Thinh Hung and Otmakhova, Yulia and Baldwin, Timothy and Cohn, Trevor and Lau, Jey Han and Verspoor, Karin},
  booktitle = {Proceedings of the 2nd Conference of the Asia-Pacific Chapter of the Association for Computational Linguistics and the 12th International Joint Conference on Natural Language Processing},
  year = {2022},
  publisher = {Association for Computational Linguistics},
  eprint = {2210.03256},
  archivePrefix = {arXiv}
}"""
#: MultiNLI (Williams et al., 2018): the corpus MNLI-neg's pairs come from.
MNLI_BIBTEX = r"""@inproceedings{williams2018,
  title = {A Broad-Coverage Challenge Corpus for Sentence Understanding through Inference},
  author = {Williams, Adina and Nangia, Nikita and Bowman, Samuel},
  booktitle = {Proceedings of the 2018 Conference of the North American Chapter of the Association for Computational Linguistics: Human Language Technologies},
  year = {2018},
  publisher = {Association for Computational Linguistics},
  url = {https://aclanthology.org/N18-1101}
}"""
