"""Title packages: one subpackage per title (rules, figures, render, data)."""
