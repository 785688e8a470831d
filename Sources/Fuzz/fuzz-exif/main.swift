import ImageCodec
