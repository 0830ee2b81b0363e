"""The registered data sets: where they come from, what they contain, how to check them.

Each entry says which files make up the data set (as laid out in a local
mirror such as ``../shared/data``), the SHA-256 of each file, and where the
original publisher serves it.  Two digests are kept per file:

``sha256``
    Of the bytes as laid out in the mirror (the sums of
    ``../shared/data/README.md``).
``content_sha256``
    Of the parsed content, independent of formatting: for a text table the
    integer values row by row (so a comma-separated copy, CRLF line ends or
    a leading ``#`` comment line give the same digest); for a ``.mat`` file
    the canonical CSR arrays of ``network`` and ``group``.  The publishers'
    files differ from the mirror in formatting only (ASU's BlogCatalog is
    comma-separated, SNAP's Facebook file has no comment line), so a
    download is accepted when either digest matches.  See
    :func:`lgekit.datasets._fetch.content_digest`.
"""
import dataclasses
from typing import Optional, Tuple

__all__ = ["DatasetInfo", "DataFile", "Download", "ARCHIVES", "registry", "info", "resolve_name"]


@dataclasses.dataclass(frozen=True)
class DataFile:
    """One file of a data set, relative to the data set's folder."""

    name: str
    sha256: str
    content_sha256: str
    kind: str  # "table:<columns>" or "mat"


@dataclasses.dataclass(frozen=True)
class Download:
    """One download from the publisher and the files it yields.

    ``archive`` is None (the file itself), "gz" (gunzip it), "zip" or "tgz" (a gzipped tar);
    ``members`` maps archive members, matched by their base name (the
    archive's folder layout does not matter), to the data set's file names.
    """

    urls: Tuple[str, ...]
    archive: Optional[str]
    members: Tuple[Tuple[str, str], ...]

    @property
    def url(self):
        return self.urls[0]

    def describe_archive(self):
        """What to do with the downloaded file, in words: ``"gunzip it to"``, ..."""
        return ARCHIVES[self.archive]


#: each archive type of a :class:`Download` and what to do with the downloaded file, in words
ARCHIVES = {None: "save it as", "gz": "gunzip it to", "zip": "unzip it and copy",
            "tgz": "extract it (tar -xzf) and copy"}


@dataclasses.dataclass(frozen=True)
class DatasetInfo:
    """A registered data set: description, citation, counts, files, downloads."""

    name: str
    title: str
    description: str
    citation: str
    homepage: str
    n_nodes: int
    n_edges: int
    n_labels: int
    n_memberships: int
    multilabel: bool
    files: Tuple[DataFile, ...] = ()
    downloads: Tuple[Download, ...] = ()
    notes: str = ""
    aliases: Tuple[str, ...] = ()
    embedded: bool = False
    #: the kind of the data as published: "undirected" or "directed" (its links are arcs)
    kind: str = "undirected"
    #: the kind :func:`lgekit.datasets.load` reads it as by default (None: ``kind``); ``n_edges`` counts its edges
    load_kind: Optional[str] = None

    @property
    def default_kind(self):
        """The kind :func:`lgekit.datasets.load` gives without ``directed=``: ``load_kind``, else ``kind``."""
        return self.load_kind or self.kind

    @property
    def folder(self):
        """Folder name under a data home (``blogcatalog``, ``ppi``, ...)."""
        return self.name

    def summary(self):
        """Plain dict for printing and JSON."""
        out = dataclasses.asdict(self)
        out["files"] = [f.name for f in self.files]
        out["urls"] = [u for d in self.downloads for u in d.urls]
        del out["downloads"]
        return out


_ASU_ZIP = ("BlogCatalog-dataset.zip",)

_REGISTRY = (
    DatasetInfo(
        name="blogcatalog",
        title="BlogCatalog3 social network",
        description=(
            "Friendship network of bloggers on BlogCatalog, with the interest groups they joined as "
            "multi-labels (39 groups). The data set of the paper's Figures 1-6."
        ),
        citation=(
            "Lei Tang and Huan Liu. Relational Learning via Latent Social Dimensions. KDD 2009, pp. 817-826. "
            "ASU Social Computing Data Repository, 'BlogCatalog3'."
        ),
        homepage="http://socialcomputing.asu.edu/datasets/BlogCatalog3",
        n_nodes=10_312,
        n_edges=333_983,
        n_labels=39,
        n_memberships=14_476,
        multilabel=True,
        files=(
            DataFile("nodes.csv", "39047aef3f6045bd8a1df6ee3606fa6709a835b79c034ee84fe479599dfae602",
                     "78540c4e29734cd58e04def562056f9dc0492410b880836484371f905db38556", "table:1"),
            DataFile("edges.csv", "a3ac1f134b88829e6520bba2822c6e8f44487caa296a37951a6c161894f2e3ef",
                     "fc321485ffbff9dccc5679923b90e1e312ca4ae124da9de74dcab694ee69c64c", "table:2"),
            DataFile("groups.csv", "51cfd743344690c92aa5e7219210935ea6c82cdff92c102418f412b135fa63aa",
                     "b4942af19bd9816a33a1a49cfe70dfba097a1ac1afb6007b2ada68d14582e445", "table:1"),
            DataFile("group-edges.csv", "9371e47394d64fa903892a3aae88b9947fa72428db25c0b770199621d70dcd1e",
                     "2ef2ec13752c0f3f89a3b8321541b71987840b41099ca6b1f5c8fc1741e40270", "table:2"),
        ),
        downloads=(
            Download(
                urls=(
                    "http://socialcomputing.asu.edu/uploads/1283153973/BlogCatalog-dataset.zip",
                    "http://datasets.syr.edu/uploads/1283153973/BlogCatalog-dataset.zip",
                ),
                archive="zip",
                members=(("edges.csv", "edges.csv"), ("group-edges.csv", "group-edges.csv"),
                         ("groups.csv", "groups.csv"), ("nodes.csv", "nodes.csv")),
            ),
        ),
        notes=(
            "The publisher's zip holds BlogCatalog-dataset/data/{nodes,edges,groups,group-edges}.csv, "
            "comma-separated; the ASU repository moved to datasets.syr.edu (Zafarani & Liu), which is tried "
            "second. Node and group ids are 1-based; Graph.node_ids keeps them."
        ),
        aliases=("blogcatalog3", "blog-catalog"),
    ),
    DatasetInfo(
        name="ppi",
        title="Protein-protein interactions (Homo sapiens)",
        description=(
            "Subgraph of the BioGRID human protein-protein interaction network, with protein functions "
            "(hallmark gene sets) as 50 multi-labels, as distributed with node2vec."
        ),
        citation=(
            "Aditya Grover and Jure Leskovec. node2vec: Scalable Feature Learning for Networks. KDD 2016. "
            "Data from BioGRID (Stark et al. 2006) and MSigDB (Liberzon et al. 2011)."
        ),
        homepage="https://snap.stanford.edu/node2vec/",
        n_nodes=3_890,
        n_edges=37_845,
        n_labels=50,
        n_memberships=6_640,
        multilabel=True,
        files=(
            DataFile("Homo_sapiens.mat", "8a32b88b0576276f02d7aaa3fd282e8617a3e6db8d39abb6212a283363bf1183",
                     "3c43bdcb45165a344343d03cf9f92f5a0f5f6ac84e3fbb6632b2e22fdc3deef0", "mat"),
        ),
        downloads=(
            Download(urls=("http://snap.stanford.edu/node2vec/Homo_sapiens.mat",), archive=None,
                     members=(("Homo_sapiens.mat", "Homo_sapiens.mat"),)),
        ),
        notes=(
            "network has 76,584 stored entries, symmetric, 894 of them on the diagonal: the loader drops those "
            "self-loops (logged, no warning), leaving 37,845 undirected edges and 30 isolated nodes."
        ),
        aliases=("homo-sapiens", "homo_sapiens"),
    ),
    DatasetInfo(
        name="facebook",
        title="Facebook ego networks (combined)",
        description="Friendships among the 4,039 users of ten Facebook ego networks, merged; unlabelled.",
        citation=(
            "Julian McAuley and Jure Leskovec. Learning to Discover Social Circles in Ego Networks. NIPS 2012. "
            "SNAP, ego-Facebook."
        ),
        homepage="https://snap.stanford.edu/data/ego-Facebook.html",
        n_nodes=4_039,
        n_edges=88_234,
        n_labels=0,
        n_memberships=0,
        multilabel=False,
        files=(
            DataFile("facebook_combined.txt", "6d0f316cd58afd0683fe25dd30526bd7247b587cd50a151c06b3e8fc92e926c3",
                     "ae377dcac973c8d8ba5ee1c698c62811c529298e6610cd691c8194de04e4cf25", "table:2"),
        ),
        downloads=(
            Download(urls=("https://snap.stanford.edu/data/facebook_combined.txt.gz",), archive="gz",
                     members=(("facebook_combined.txt", "facebook_combined.txt"),)),
        ),
        notes="0-based ids. The mirror's copy starts with a '#' comment line that SNAP's file does not have.",
        aliases=("ego-facebook", "facebook-combined"),
    ),
    DatasetInfo(
        name="email-eu-core",
        title="email-Eu-core",
        description=(
            "E-mails between members of a European research institution (an arc u -> v if u sent v at "
            "least one e-mail), with each member's department (42 departments) as a single label."
        ),
        citation=(
            "Jure Leskovec, Jon Kleinberg and Christos Faloutsos. Graph Evolution: Densification and Shrinking "
            "Diameters. ACM TKDD 2007. Hao Yin, Austin R. Benson, Jure Leskovec and David F. Gleich. Local "
            "Higher-order Graph Clustering. KDD 2017. SNAP, email-Eu-core."
        ),
        homepage="https://snap.stanford.edu/data/email-Eu-core.html",
        n_nodes=1_005,
        n_edges=16_064,
        n_labels=42,
        n_memberships=1_005,
        multilabel=False,
        files=(
            DataFile("email-Eu-core.txt", "23e0ca0bce21a053025e78f7e9691ac9210ae806a0689bd5edff3c3bac572d4c",
                     "c93ce1b863a8b172c44e6f8773fb5cb9b403727eaaef2422bc75ff72c1e15da2", "table:2"),
            DataFile("email-Eu-core-department-labels.txt",
                     "91a089f21ee35eb224066456fa5322c8ad57c0f07b2da7a58a3220c72b5d54b5", "95010708b1d6391db8ba0ca0298d5774520a38f64cd0747d30761b5fe4cde116", "table:2"),
        ),
        downloads=(
            Download(urls=("https://snap.stanford.edu/data/email-Eu-core.txt.gz",), archive="gz",
                     members=(("email-Eu-core.txt", "email-Eu-core.txt"),)),
            Download(urls=("https://snap.stanford.edu/data/email-Eu-core-department-labels.txt.gz",), archive="gz",
                     members=(("email-Eu-core-department-labels.txt", "email-Eu-core-department-labels.txt"),)),
        ),
        notes=(
            "25,571 directed arcs, 642 of them self-loops. A directed data set that load() reads undirected by "
            "default (its department labels' classic use, node classification, is undirected) and says so in one "
            "line (logged at INFO, a note on the command line): it symmetrises, drops the self-loops (a known "
            "property of this data set) and merges reciprocal arcs: 16,064 undirected edges; 19 nodes are then "
            "isolated. directed=True keeps the 24,929 arcs that are not self-loops."
        ),
        aliases=("email-eu", "email_eu_core", "emaileucore"),
        kind="directed",
        load_kind="undirected",
    ),
    DatasetInfo(
        name="cora",
        title="Cora citation graph",
        description=(
            "Citations among 2,708 machine-learning papers (an arc u -> v if paper u cites paper v), the LINQS "
            "copy distributed with Kipf & Welling's GCN and Salha et al.'s gravity graph autoencoders; almost "
            "acyclic (reciprocity 0.06), so an arc's direction is nearly fixed by publication order. This copy "
            "keeps the citations only (the LINQS cora.content holds 7 classes and word features)."
        ),
        citation=(
            "Andrew McCallum, Kamal Nigam, Jason Rennie and Kristie Seymore. Automating the Construction of "
            "Internet Portals with Machine Learning. Information Retrieval 3(2), 2000. Prithviraj Sen, Galileo "
            "Namata, Mustafa Bilgic, Lise Getoor, Brian Gallagher and Tina Eliassi-Rad. Collective Classification "
            "in Network Data. AI Magazine 29(3), 2008 (LINQS)."
        ),
        homepage="https://linqs.org/datasets/#cora",
        n_nodes=2_708,
        n_edges=5_429,
        n_labels=0,
        n_memberships=0,
        multilabel=False,
        files=(
            DataFile("cora.cites", "ec1a372391b7f0f60a6aff0084e8abd8f19f0faa7e1f2441a41c492042d5945e",
                     "fcccc7c2026019155a576c08bdff0bcce84dba660aec1c6b544477292836ca80", "table:2"),
        ),
        downloads=(
            Download(urls=("https://linqs-data.soe.ucsc.edu/public/lbc/cora.tgz",), archive="tgz",
                     members=(("cora.cites", "cora.cites"),)),
        ),
        notes=(
            "cora.cites has two columns <cited paper id> <citing paper id> (LINQS order): the arc citing -> "
            "cited is the SECOND column to the FIRST, and load() reads it that way round. A directed data set, "
            "loaded directed by default: 5,429 arcs, no self-loops; paper ids are integers up to 1,155,073. "
            "directed=False merges the 5,429 arcs into 5,278 undirected edges."
        ),
        aliases=("cora-cites", "cora_cites"),
        kind="directed",
    ),
    DatasetInfo(
        name="synthetic-blogcatalog",
        title="Synthetic BlogCatalog-shaped graph (embedded)",
        description=(
            "Seeded planted-partition graph with overlapping multi-labels shaped like BlogCatalog: 10,312 nodes, "
            "333,983 edges (+ a few so no node is isolated), 39 labels, ~1.4 labels per node, power-law degrees. "
            "Generated on the fly, needs no download; load(..., n_nodes=..., seed=...) changes it."
        ),
        citation=(
            "Brian Karrer and M. E. J. Newman. Stochastic blockmodels and community structure in networks. "
            "Phys. Rev. E 83, 016107 (2011); Brian Ball, Brian Karrer and M. E. J. Newman. Efficient and "
            "principled method for detecting communities in networks. Phys. Rev. E 84, 036103 (2011)."
        ),
        homepage="",
        n_nodes=10_312,
        n_edges=333_983,
        n_labels=39,
        n_memberships=14_476,
        multilabel=True,
        notes="See lgekit.datasets.planted_partition_graph for the model and its parameters.",
        aliases=("synthetic", "synthetic_blogcatalog"),
        embedded=True,
    ),
)

_BY_NAME = {d.name: d for d in _REGISTRY}
_ALIASES = {alias: d.name for d in _REGISTRY for alias in d.aliases}


def resolve_name(name):
    """The registered name for ``name`` (case-insensitive, aliases allowed), or None."""
    if not isinstance(name, str):
        return None
    key = name.strip().lower()
    if key in _BY_NAME:
        return key
    return _ALIASES.get(key)


def registry():
    """All registered data sets, by name (a new dict; the entries are frozen dataclasses).

    Examples
    --------
    >>> sorted(registry())
    ['blogcatalog', 'cora', 'email-eu-core', 'facebook', 'ppi', 'synthetic-blogcatalog']
    """
    return dict(_BY_NAME)


def info(name):
    """The :class:`DatasetInfo` of a registered data set.

    Raises
    ------
    ValueError
        For an unknown name, listing the known ones.

    Examples
    --------
    >>> info("BlogCatalog").n_nodes
    10312
    """
    key = resolve_name(name)
    if key is None:
        raise ValueError(f"unknown data set {name!r}; registered: {', '.join(_BY_NAME)}")
    return _BY_NAME[key]
