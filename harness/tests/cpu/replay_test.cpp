// placeholder: tests come in a later commit
