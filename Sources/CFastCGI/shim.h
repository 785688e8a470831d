#ifndef GALLERY_CFASTCGI_SHIM_H
#define GALLERY_CFASTCGI_SHIM_H
#include <fcgiapp.h>
#endif
