/* cluster_transport on a fake /sys and /etc (a temp root): the link whose transmit counter
 * moved by the bytes sent is named with its kind (a driver, IP over InfiniBand, an RDMA
 * port counted in four-octet words), none when no counter moved that far, TCP beside an
 * RDMA device is a fallback with a warning, and the MCA parameters come from the
 * environment before mca-params.conf; ompi_info's faster components are listed. */
#include "peak_cmocka.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cluster_transport.h"

static char root[64];

static void put(const char *rel, const char *text)
{
	char path[256], dir[320];
	snprintf(path, sizeof path, "%s/%s", root, rel);
	snprintf(dir, sizeof dir, "mkdir -p \"$(dirname '%s')\"", path);
	assert_int_equal(system(dir), 0);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void put_num(const char *rel, unsigned long long v)
{
	char text[32];
	snprintf(text, sizeof text, "%llu\n", v);
	put(rel, text);
}

static void netdev(const char *name, const char *type)
{
	char rel[128];
	snprintf(rel, sizeof rel, "sys/class/net/%s/type", name);
	put(rel, type);
	snprintf(rel, sizeof rel, "sys/class/net/%s/statistics/tx_bytes", name);
	put_num(rel, 1000);
	snprintf(rel, sizeof rel, "sys/class/net/%s/statistics/rx_bytes", name);
	put_num(rel, 1000);
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof root, "/tmp/peak_transport.XXXXXX");
	if (mkdtemp(root) == NULL)
		return -1;
	netdev("lo", "772\n");
	netdev("eth0", "1\n");
	netdev("ib0", "32\n");
	/* eth0 is a real NIC: its device's driver link names the driver. */
	put("sys/bus/pci/drivers/ena/.keep", "");
	put("sys/devices/pci0/eth0dev/.keep", "");
	char path[256];
	snprintf(path, sizeof path, "%s/sys/class/net/eth0/device", root);
	if (symlink("../../../devices/pci0/eth0dev", path) != 0)
		return -1;
	snprintf(path, sizeof path, "%s/sys/devices/pci0/eth0dev/driver", root);
	if (symlink("../../../bus/pci/drivers/ena", path) != 0)
		return -1;
	put_num("sys/class/infiniband/mlx5_0/ports/1/counters/port_xmit_data", 100);
	put_num("sys/class/infiniband/mlx5_0/ports/1/counters/port_rcv_data", 100);
	put("etc/openmpi/openmpi-mca-params.conf",
	    "# Debian's\nbtl_base_warn_component_unused=0\npml = ^ucx\nbtl = ^openib\n");
	put("ompi_info.txt",
	    "mca:btl:tcp:version:\"mca:2.1.0\"\nmca:pml:ucx:version:\"mca:2.1.0\"\n"
	    "mca:pml:ucx:version:\"api:2.0.0\"\nmca:mtl:ofi:version:\"mca:2.1.0\"\n"
	    "mca:btl:vader:version:\"mca:2.1.0\"\n");
	unsetenv("OMPI_MCA_pml");
	unsetenv("OMPI_MCA_mtl");
	unsetenv("OMPI_MCA_btl_tcp_if_include");
	setenv("OMPI_MCA_btl", "self,tcp", 1);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[96];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

static struct cluster_transport *begin(void)
{
	struct cluster_transport *t = calloc(1, sizeof *t);
	assert_non_null(t);
	t->sysroot = root;
	char *info = malloc(128);
	assert_non_null(info);
	snprintf(info, 128, "%s/ompi_info.txt", root);
	t->ompi_info = info;
	cluster_transport_read(t);
	return t;
}

static void finish(struct cluster_transport *t)
{
	free((void *)t->ompi_info);
	free(t);
}

static const char *get(const struct peak_context *ctx, const char *key)
{
	const char *v = peak_context_get(ctx, key);
	return v != NULL ? v : "(absent)";
}

static void test_tcp_beside_rdma_is_a_fallback(void **state)
{
	(void)state;
	struct cluster_transport *t = begin();
	assert_int_equal(t->rdma_devices, 1);
	put_num("sys/class/net/eth0/statistics/tx_bytes", 1000 + 5000000);
	put_num("sys/class/net/lo/statistics/tx_bytes", 1000 + 20);
	static struct peak_context ctx;
	peak_context_init(&ctx);
	int i = cluster_transport_end(t, 4194304, &ctx);
	assert_true(i >= 0);
	assert_string_equal(t->links[i].name, "eth0");
	assert_string_equal(get(&ctx, "mpi.transport"), "tcp over ena eth0");
	assert_string_equal(get(&ctx, "mpi.interface"), "eth0");
	assert_string_equal(get(&ctx, "mpi.interface_bytes"), "5000000");
	assert_string_equal(get(&ctx, "mpi.fallback"), "true");
	assert_non_null(strstr(get(&ctx, "warnings"), "fell back to TCP"));
	assert_non_null(strstr(get(&ctx, "warnings"), "ucx"));
	finish(t);
	put_num("sys/class/net/eth0/statistics/tx_bytes", 1000);
	put_num("sys/class/net/lo/statistics/tx_bytes", 1000);
}

static void test_rdma_port_counts_words(void **state)
{
	(void)state;
	struct cluster_transport *t = begin();
	/* 1.5 M words = 6 MB: past 4 MiB only when counted as four octets each. */
	put_num("sys/class/infiniband/mlx5_0/ports/1/counters/port_xmit_data", 100 + 1500000);
	static struct peak_context ctx;
	peak_context_init(&ctx);
	int i = cluster_transport_end(t, 4194304, &ctx);
	assert_true(i >= 0);
	assert_string_equal(get(&ctx, "mpi.transport"), "rdma over mlx5_0/1");
	assert_string_equal(get(&ctx, "mpi.interface_bytes"), "6000000");
	assert_string_equal(get(&ctx, "mpi.fallback"), "false");
	assert_null(peak_context_get(&ctx, "warnings"));
	finish(t);
	put_num("sys/class/infiniband/mlx5_0/ports/1/counters/port_xmit_data", 100);
}

static void test_ipoib_is_tcp_on_the_fabric(void **state)
{
	(void)state;
	struct cluster_transport *t = begin();
	put_num("sys/class/net/ib0/statistics/tx_bytes", 1000 + 4194304);
	static struct peak_context ctx;
	peak_context_init(&ctx);
	assert_true(cluster_transport_end(t, 4194304, &ctx) >= 0);
	assert_string_equal(get(&ctx, "mpi.transport"), "tcp over ipoib ib0");
	assert_string_equal(get(&ctx, "mpi.fallback"), "true");
	finish(t);
	put_num("sys/class/net/ib0/statistics/tx_bytes", 1000);
}

static void test_no_link_moved_enough(void **state)
{
	(void)state;
	struct cluster_transport *t = begin();
	put_num("sys/class/net/eth0/statistics/tx_bytes", 1000 + 4194303); /* one short */
	static struct peak_context ctx;
	peak_context_init(&ctx);
	assert_int_equal(cluster_transport_end(t, 4194304, &ctx), -1);
	assert_string_equal(get(&ctx, "mpi.interface"), "none");
	assert_non_null(strstr(get(&ctx, "mpi.transport"), "shared memory"));
	assert_string_equal(get(&ctx, "mpi.fallback"), "false");
	finish(t);
	put_num("sys/class/net/eth0/statistics/tx_bytes", 1000);
}

static void test_a_busier_link_is_not_the_carrier(void **state)
{
	(void)state;
	struct cluster_transport *t = begin();
	/* lo carried another job's 50 MB meanwhile: both moved past 4 MiB, eth0 the least. */
	put_num("sys/class/net/eth0/statistics/tx_bytes", 1000 + 4300000);
	put_num("sys/class/net/lo/statistics/tx_bytes", 1000 + 50000000);
	static struct peak_context ctx;
	peak_context_init(&ctx);
	assert_true(cluster_transport_end(t, 4194304, &ctx) >= 0);
	assert_string_equal(get(&ctx, "mpi.interface"), "eth0");
	finish(t);
	put_num("sys/class/net/eth0/statistics/tx_bytes", 1000);
	put_num("sys/class/net/lo/statistics/tx_bytes", 1000);
}

static void test_a_peer_on_this_node_is_shared_memory(void **state)
{
	(void)state;
	struct cluster_transport *t = begin();
	t->peer_same_node = 1;
	put_num("sys/class/net/eth0/statistics/tx_bytes", 1000 + 5000000); /* someone else's */
	static struct peak_context ctx;
	peak_context_init(&ctx);
	assert_int_equal(cluster_transport_end(t, 4194304, &ctx), -1);
	assert_string_equal(get(&ctx, "mpi.interface"), "none");
	assert_string_equal(get(&ctx, "mpi.transport"),
			    "shared memory (the peer is on this node; btl self,tcp)");
	assert_string_equal(get(&ctx, "mpi.fallback"), "false");
	finish(t);
	/* ob1 without a shared-memory BTL (btl self,tcp): TCP over loopback, counted. */
	t = begin();
	t->peer_same_node = 1;
	snprintf(t->pml_open, sizeof t->pml_open, "ob1");
	snprintf(t->btl_open, sizeof t->btl_open, "tcp,self");
	put_num("sys/class/net/lo/statistics/tx_bytes", 1000 + 4200000);
	peak_context_init(&ctx);
	assert_true(cluster_transport_end(t, 4194304, &ctx) >= 0);
	assert_string_equal(get(&ctx, "mpi.transport"), "tcp over loopback lo");
	finish(t);
	put_num("sys/class/net/eth0/statistics/tx_bytes", 1000);
	put_num("sys/class/net/lo/statistics/tx_bytes", 1000);
}

static void test_parameters_and_their_sources(void **state)
{
	(void)state;
	struct cluster_transport *t = begin();
	assert_string_equal(t->pml, "^ucx");
	assert_string_equal(t->pml_from, "mca-params.conf");
	assert_string_equal(t->btl, "self,tcp"); /* the environment before the file */
	assert_string_equal(t->btl_from, "env");
	assert_string_equal(t->mtl, "");
	assert_string_equal(t->fast_components, "ucx,ofi");
	static struct peak_context ctx;
	peak_context_init(&ctx);
	(void)cluster_transport_end(t, 0, &ctx);
	assert_string_equal(get(&ctx, "mpi.pml"), "^ucx (mca-params.conf)");
	assert_string_equal(get(&ctx, "mpi.btl"), "self,tcp (env)");
	assert_string_equal(get(&ctx, "mpi.mtl"), "OpenMPI's default");
	assert_string_equal(get(&ctx, "mpi.fast_components"), "ucx,ofi");
	assert_string_equal(get(&ctx, "mpi.transport"), "none (no MPI bytes sent)");
	finish(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tcp_beside_rdma_is_a_fallback),
	    cmocka_unit_test(test_rdma_port_counts_words),
	    cmocka_unit_test(test_ipoib_is_tcp_on_the_fabric),
	    cmocka_unit_test(test_no_link_moved_enough),
	    cmocka_unit_test(test_a_busier_link_is_not_the_carrier),
	    cmocka_unit_test(test_a_peer_on_this_node_is_shared_memory),
	    cmocka_unit_test(test_parameters_and_their_sources),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
