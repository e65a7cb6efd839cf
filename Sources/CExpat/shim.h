// libexpat, the streaming XML parser the XMPP framing is built on.
#ifndef FCM_CEXPAT_SHIM_H
#define FCM_CEXPAT_SHIM_H
#include <expat.h>
#endif
