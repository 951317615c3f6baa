#ifndef FRONTDOOR_CSTARTUP_H
#define FRONTDOOR_CSTARTUP_H
/* Nothing to call: arguments.c only defines what the Swift runtime looks up (see there). */
#endif
