/* The transport's MPI half: what the library selected, read in-process through MPI_T's
 * control variables; the probe every run starts with; and the notes of every node carried
 * to rank 0's contexts. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "cluster_transport.h"
#include "cluster_wait.h"

/* Append word to a comma list unless it is there already. */
static void add_word(char *list, size_t len, const char *word)
{
	size_t n = strlen(list), w = strlen(word);
	for (const char *p = list; (p = strstr(p, word)) != NULL; p += w)
		if ((p == list || p[-1] == ',') && (p[w] == ',' || p[w] == '\0'))
			return;
	(void)peak_fmt(list + n, len - n, "%s%s", n ? "," : "", word);
}

/* One string control variable's value ("" when it is not a string or cannot be read). */
static void read_cvar(int index, MPI_Datatype type, char *out, size_t len)
{
	MPI_T_cvar_handle h;
	int count = 0;
	out[0] = '\0';
	if (type != MPI_CHAR || MPI_T_cvar_handle_alloc(index, NULL, &h, &count) != MPI_SUCCESS)
		return;
	char buf[4096] = {0};
	if (count >= 0 && (size_t)count < sizeof buf && MPI_T_cvar_read(h, buf) == MPI_SUCCESS)
		(void)peak_fmt(out, len, "%s", buf);
	(void)MPI_T_cvar_handle_free(&h);
}

/* OpenMPI deregisters the variables of every component it closes after selection: those
 * of "pml_X_*", "btl_X_*", "mtl_X_*" still valid after MPI_Init name the components that
 * stayed open (the PML selected, the BTLs it may use). The framework's own variables
 * ("pml", "btl", ...) give the value asked for, wherever it was set. MPICH names its
 * variables MPIR_CVAR_*: nothing matches and the parameters stay as the files say. */
static void read_mpi_t(struct cluster_transport *t)
{
	int provided = 0, n = 0;
	if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS)
		return;
	if (MPI_T_cvar_get_num(&n) != MPI_SUCCESS)
		n = 0;
	struct {
		const char *name;
		char *value, *from;
		size_t len;
	} asked[] = {
	    {"pml", t->pml, t->pml_from, sizeof t->pml},
	    {"btl", t->btl, t->btl_from, sizeof t->btl},
	    {"mtl", t->mtl, t->mtl_from, sizeof t->mtl},
	    {"btl_tcp_if_include", t->if_include, t->if_include_from, sizeof t->if_include}};
	for (int i = 0; i < n; i++) {
		char name[256], comp[64];
		int name_len = sizeof name, desc_len = 0, verbosity, bind, scope;
		MPI_Datatype type;
		MPI_T_enum en;
		if (MPI_T_cvar_get_info(i, name, &name_len, &verbosity, &type, &en, NULL, &desc_len,
					&bind, &scope) != MPI_SUCCESS)
			continue; /* a closed component's */
		for (size_t k = 0; k < sizeof asked / sizeof asked[0]; k++)
			if (strcmp(name, asked[k].name) == 0) {
				char v[256];
				read_cvar(i, type, v, sizeof v);
				/* Set by nothing the environment or the files show: MPI_T's word.
				 */
				if (v[0] != '\0' && asked[k].value[0] == '\0')
					(void)peak_fmt(asked[k].from, sizeof t->pml_from, "MPI_T");
				if (v[0] != '\0')
					(void)peak_fmt(asked[k].value, asked[k].len, "%s", v);
			}
		char fw[8];
		if (sscanf(name, "%3[a-z]_%63[a-z0-9]_", fw, comp) != 2 ||
		    strcmp(comp, "base") == 0)
			continue;
		if (strcmp(fw, "pml") == 0 && strcmp(comp, "v") != 0)
			add_word(t->pml_open, sizeof t->pml_open, comp);
		else if (strcmp(fw, "btl") == 0)
			add_word(t->btl_open, sizeof t->btl_open, comp);
		else if (strcmp(fw, "mtl") == 0)
			add_word(t->mtl_open, sizeof t->mtl_open, comp);
	}
	(void)MPI_T_finalize();
}

void cluster_transport_begin(struct cluster_transport *t)
{
	t->pml_open[0] = t->btl_open[0] = t->mtl_open[0] = '\0';
	cluster_transport_read(t);
	read_mpi_t(t);
}

/* A node's mpi.* keys, small enough to gather from every rank. */
#define NOTE_KEYS 14
struct note {
	struct {
		char key[PEAK_CONTEXT_KEY_LEN];
		char value[400];
		int type;
	} kv[NOTE_KEYS];
	int n;
};

static void to_note(const struct peak_context *ctx, struct note *note)
{
	memset(note, 0, sizeof *note);
	for (size_t i = 0; i < ctx->n && note->n < NOTE_KEYS; i++) {
		const struct peak_kv *kv = &ctx->kv[i];
		if (strncmp(kv->key, "mpi.", 4) != 0 && strcmp(kv->key, "warnings") != 0)
			continue;
		(void)peak_fmt(note->kv[note->n].key, sizeof note->kv[0].key, "%s", kv->key);
		(void)peak_fmt(note->kv[note->n].value, sizeof note->kv[0].value, "%s", kv->value);
		note->kv[note->n++].type = (int)kv->type;
	}
}

/* Into a context block: the keys as they were typed; a warning appended, with host. */
static void from_note(const struct note *note, const char *host, struct peak_context *ctx)
{
	for (int i = 0; i < note->n; i++) {
		const char *k = note->kv[i].key, *v = note->kv[i].value;
		if (strcmp(k, "warnings") == 0) {
			char w[PEAK_CONTEXT_VALUE_LEN];
			(void)peak_fmt(w, sizeof w, "%s: %s", host, v);
			peak_context_warn(ctx, w);
		} else if (note->kv[i].type == (int)PEAK_KV_NUMBER)
			peak_context_set_num(ctx, k, strtod(v, NULL));
		else if (note->kv[i].type == (int)PEAK_KV_BOOL)
			peak_context_set_bool(ctx, k, strcmp(v, "true") == 0);
		else
			peak_context_set_str(ctx, k, v);
	}
}

void cluster_transport_share(const struct cluster_run *run, struct cluster_transport *t,
			     uint64_t bytes_sent)
{
	struct peak_context *mine = malloc(sizeof *mine);
	struct note *note = malloc(sizeof *note);
	struct note *all = run->rank == 0 ? calloc((size_t)run->nranks, sizeof *all) : NULL;
	if (mine == NULL || note == NULL || (run->rank == 0 && all == NULL))
		cluster_fail(run, "out of memory");
	peak_context_init(mine);
	(void)cluster_transport_end(t, bytes_sent, mine);
	to_note(mine, note);
	cluster_gather(note, (int)sizeof *note, all, 0, MPI_COMM_WORLD);
	if (run->rank == 0) {
		for (int i = 0; i < run->nranks; i++)
			if (run->node_ctxs != NULL)
				from_note(&all[i], run->nodes[i].name, &run->node_ctxs[i]);
		/* The run's keys are rank 0's; every node's warning is the run's too. */
		for (int i = 0; i < run->nranks && run->ctx != NULL; i++) {
			struct note only = all[i];
			if (i != 0) {
				only.n = 0;
				for (int k = 0; k < all[i].n; k++)
					if (strcmp(all[i].kv[k].key, "warnings") == 0)
						only.kv[only.n++] = all[i].kv[k];
			}
			from_note(&only, run->nodes[i].name, run->ctx);
		}
	}
	free(all);
	free(note);
	free(mine);
}

/* Whether MPI counts rank other on this rank's node (its shared-memory communicator): the
 * only view that decides between its shared-memory and network transports. */
static int same_node(int rank, int other)
{
	MPI_Comm local;
	if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL,
				&local) != MPI_SUCCESS)
		return 0;
	MPI_Group world, mine;
	int there = MPI_UNDEFINED;
	MPI_Comm_group(MPI_COMM_WORLD, &world);
	MPI_Comm_group(local, &mine);
	MPI_Group_translate_ranks(world, 1, &other, mine, &there);
	MPI_Group_free(&mine);
	MPI_Group_free(&world);
	MPI_Comm_free(&local);
	return there != MPI_UNDEFINED;
}

void cluster_transport_probe(const struct cluster_run *run, const char *ompi_info)
{
	enum { CHUNK = 1 << 20, CHUNKS = 4 };
	struct cluster_transport *t = calloc(1, sizeof *t);
	char *out = malloc(CHUNK), *in = malloc(CHUNK);
	if (t == NULL || out == NULL || in == NULL)
		cluster_fail(run, "out of memory");
	memset(out, 0x5a, CHUNK);
	t->ompi_info = ompi_info;
	cluster_transport_begin(t);
	cluster_barrier(MPI_COMM_WORLD);
	uint64_t sent = 0;
	if (run->nranks > 1) {
		int right = (run->rank + 1) % run->nranks;
		int left = (run->rank + run->nranks - 1) % run->nranks;
		t->peer_same_node = same_node(run->rank, right);
		for (int i = 0; i < CHUNKS; i++) {
			MPI_Request req[2];
			MPI_Irecv(in, CHUNK, MPI_BYTE, left, 77, MPI_COMM_WORLD, &req[0]);
			MPI_Isend(out, CHUNK, MPI_BYTE, right, 77, MPI_COMM_WORLD, &req[1]);
			MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
			sent += CHUNK;
		}
	}
	cluster_barrier(MPI_COMM_WORLD);
	cluster_transport_share(run, t, sent);
	free(in);
	free(out);
	free(t);
}
