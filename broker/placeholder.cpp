// replaced by the broker sources
