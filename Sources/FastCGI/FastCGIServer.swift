import CFastCGI
