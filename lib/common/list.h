/*
 * list.h - intrusive circular doubly linked list (the kernel's list_head shape,
 * 16 bytes). Written for libswapsim.
 */
#ifndef SWS_LIST_H
#define SWS_LIST_H

#include <stdbool.h>
#include "compiler.h"

struct sws_list {
	struct sws_list *next, *prev;
};

static inline void sws_list_init(struct sws_list *h) { h->next = h->prev = h; }
static inline bool sws_list_empty(const struct sws_list *h) { return h->next == h; }

static inline void sws_list_add_tail(struct sws_list *n, struct sws_list *h)
{
	n->prev = h->prev;
	n->next = h;
	h->prev->next = n;
	h->prev = n;
}

static inline void sws_list_add(struct sws_list *n, struct sws_list *h)
{
	n->next = h->next;
	n->prev = h;
	h->next->prev = n;
	h->next = n;
}

static inline void sws_list_del_init(struct sws_list *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	sws_list_init(n);
}

#define sws_list_entry(ptr, type, member) sws_container_of(ptr, type, member)
#define sws_list_for_each(pos, head) for ((pos) = (head)->next; (pos) != (head); (pos) = (pos)->next)

#endif
