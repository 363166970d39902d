/* The host/device marker lives in core so that core's generators can use it too. */
#include "core/hd.h"
