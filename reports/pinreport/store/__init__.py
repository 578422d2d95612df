"""The baseline store's read side: its files, its history index, and what each command reads."""
