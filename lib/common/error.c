/* error.c - messages and names for the SWS_E* codes. */
#include <swapsim/error.h>

const char *sws_strerror(int err)
{
	switch (err) {
	case SWS_OK:
		return "success";
#define SWS__ERR_MSG(name, num, msg) \
	case SWS_##name:             \
		return msg;
		SWS_ERROR_LIST(SWS__ERR_MSG)
#undef SWS__ERR_MSG
	default:
		return "unknown error";
	}
}

const char *sws_error_name(int err)
{
	switch (err) {
	case SWS_OK:
		return "SWS_OK";
#define SWS__ERR_NAME(name, num, msg) \
	case SWS_##name:              \
		return "SWS_" #name;
		SWS_ERROR_LIST(SWS__ERR_NAME)
#undef SWS__ERR_NAME
	default:
		return "SWS_E?";
	}
}
