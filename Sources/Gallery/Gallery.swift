import ImagePipeline
import FastCGI
