"""Session exchange files and the bounded JSON reading they share."""
