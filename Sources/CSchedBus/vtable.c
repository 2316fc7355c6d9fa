#include "CSchedBus.h"
