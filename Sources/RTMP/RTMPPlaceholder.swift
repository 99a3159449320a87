enum RTMPPlaceholder {}
