internal import CX264
