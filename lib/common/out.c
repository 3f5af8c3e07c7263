/*
 * out.c - the emitter (out.h): formatting into a buffer on the stack, then
 * the caller's write callback.
 */
#include <stdarg.h>
#include <stdio.h>

#include "out.h"

void sws__pr(struct sws__out *o, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	if (o->err)
		return;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	o->err = o->write(o->ctx, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}
