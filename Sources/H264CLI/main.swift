import H264
print("h264")
