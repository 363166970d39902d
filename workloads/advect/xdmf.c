/* An XDMF file beside each HDF5 field file, so that ParaView and VisIt open it
 * as a grid with one cell array a field. The dataset is the study's layout,
 * /fields[ny][nx][nz][N]: the mesh's axes are y, x, z from slowest to fastest,
 * which a viewer shows as its Z, Y, X; each field is a hyperslab of it. */
#include <stdio.h>
#include <string.h>
#include "advect/advect.h"
#include "core/error.h"
#include "core/output.h"

static void hyperslab(FILE *f, const adv_cfg *c, const char *h5name, int field, int nall) {
    long long ny = c->n[1], nx = c->n[0], nz = c->n[2];
    fprintf(f,
            "      <Attribute Name=\"field_%03d\" AttributeType=\"Scalar\" Center=\"Cell\">\n"
            "        <DataItem ItemType=\"HyperSlab\" Dimensions=\"%lld %lld %lld 1\">\n"
            "          <DataItem Dimensions=\"3 4\" Format=\"XML\">0 0 0 %d 1 1 1 1 %lld %lld %lld "
            "1</DataItem>\n"
            "          <DataItem Dimensions=\"%lld %lld %lld %d\" NumberType=\"Float\" "
            "Precision=\"4\" Format=\"HDF\">%s:/fields</DataItem>\n"
            "        </DataItem>\n      </Attribute>\n",
            field, ny, nx, nz, field, ny, nx, nz, ny, nx, nz, nall, h5name);
}

int adv_xdmf_write(const adv_state *s, const char *h5path, int64_t step) {
    const adv_cfg *c = s->cfg;
    char path[1200];
    snprintf(path, sizeof path, "%s", h5path);
    char *dot = strrchr(path, '.');
    if (!dot || strcmp(dot, ".h5")) return mu_error("'%s': expected a .h5 name", h5path);
    strcpy(dot, ".xmf");
    const char *slash = strrchr(h5path, '/');
    const char *h5name = slash ? slash + 1 : h5path;
    mu_output out;
    MU_TRY(mu_output_open(&out, path));
    FILE *f = out.f;
    fprintf(
        f,
        "<?xml version=\"1.0\" ?>\n<Xdmf Version=\"3.0\">\n  <Domain>\n"
        "    <Grid Name=\"advect\" GridType=\"Uniform\">\n"
        "      <Information Name=\"axes\" Value=\"slowest to fastest: y, x, z\"/>\n"
        "      <Time Value=\"%.17g\"/>\n"
        "      <Topology TopologyType=\"3DCoRectMesh\" Dimensions=\"%lld %lld %lld\"/>\n"
        "      <Geometry GeometryType=\"ORIGIN_DXDYDZ\">\n"
        "        <DataItem Dimensions=\"3\" NumberType=\"Float\" Format=\"XML\">0 0 0</DataItem>\n"
        "        <DataItem Dimensions=\"3\" NumberType=\"Float\" Format=\"XML\">%.17g %.17g "
        "%.17g</DataItem>\n      </Geometry>\n",
        (double)step * c->dt, (long long)c->n[1] + 1, (long long)c->n[0] + 1,
        (long long)c->n[2] + 1, c->len[1] / (double)c->n[1], c->len[0] / (double)c->n[0],
        c->len[2] / (double)c->n[2]);
    for (int field = 0; field < s->nall; field++) hyperslab(f, c, h5name, field, s->nall);
    fprintf(f, "    </Grid>\n  </Domain>\n</Xdmf>\n");
    return mu_output_commit(&out);
}
