"""Display robustness of the human reference (the main paper's Appendix B): profiles, measurements, tests."""
