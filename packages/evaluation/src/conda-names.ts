/**
 * Conda package names whose pip name differs, or that are not Python packages at all. Names
 * that differ only in case, `_` or `-` need no entry (pip normalises them, PEP 503).
 *
 * Sources: the conda-forge feedstock of each package (its recipe's PyPI source URL), as collected
 * in regro's grayskull mapping (`grayskull_pypi_mapping.json`, shipped in the `conda-pypi`
 * package on the Python package index, version 0.13.1), checked by hand for the names in the
 * SWE-bench harness's environment files (xarray's and matplotlib's `environment.yml`, and the
 * harness's per-instance `swebench-og` exports), where that mapping has no entry.
 */
export const CONDA_TO_PIP: Readonly<Record<string, string>> = {
  // grayskull mapping
  "matplotlib-base": "matplotlib",
  "dask-core": "dask",
  "msgpack-python": "msgpack",
  "python-fastjsonschema": "fastjsonschema",
  "python-tzdata": "tzdata",
  "python-xxhash": "xxhash",
  "seaborn-base": "seaborn",
  pytables: "tables",
  "python-graphviz": "graphviz",
  pyqt: "PyQt5",
  pytorch: "torch",
  // conda-forge feedstocks (checked by hand)
  "brotli-python": "Brotli",
  "pyarrow-core": "pyarrow",
  "nbconvert-core": "nbconvert",
  "python-eccodes": "eccodes",
  iris: "scitools-iris",
  "py-opencv": "opencv-python",
  "bleach-with-css": "bleach[css]",
  "antlr-python-runtime": "antlr4-python3-runtime",
};

/**
 * Conda packages that conda-forge builds for every Python but pip's dependents require only
 * under a marker: on a newer Python the conda build is a stub, and the sdist pip would build
 * does not compile. Installed under the marker their dependents use.
 *
 * Sources: `backports.zoneinfo` — tzlocal's and pytz-deprecation-shim's metadata require it
 * only where `python_version < "3.9"` (zoneinfo is in the standard library from 3.9); its 0.2.1
 * sdist fails to build on 3.10 (`_PyLong_One`), which the harness's xarray exports pin on 3.10.
 */
export const CONDA_PIP_MARKERS: Readonly<Record<string, string>> = {
  "backports.zoneinfo": 'python_version < "3.9"',
};

/** Conda packages that are not Python packages on the index (libraries, tools, metapackages): never installed with pip. */
export const CONDA_ONLY: Readonly<Record<string, string>> = {
  python: "the image's Python is chosen by the Python rule",
  pip: "the image's pip is the builder's",
  "numpy-base": "part of conda's numpy, which pip installs whole",
  hdf5: "a C library (h5py's and netCDF4's wheels bundle it)",
  libnetcdf: "a C library (netCDF4's wheels bundle it)",
  cdms2: "conda-only (CDAT), not on the Python package index",
  cdat_info: "conda-only (CDAT), not on the Python package index",
  cdtime: "conda-only (CDAT), not on the Python package index",
  libcf: "conda-only (CDAT's CF library with its Python module), not on the Python package index",
  distarray: "conda-only (CDAT's), not on the Python package index",
  esmpy: "conda-only (ESMF's Python bindings need the ESMF library)",
  esmf: "a Fortran library",
  pynio: "conda-only, not on the Python package index",
  nomkl: "a conda metapackage (selects OpenBLAS)",
  blas: "a conda metapackage",
  compilers: "a conda metapackage (the image has build-essential)",
  "c-compiler": "a conda metapackage (the image has build-essential)",
  "cxx-compiler": "a conda metapackage (the image has build-essential)",
  "fortran-compiler": "a conda metapackage",
  graphviz: "the Graphviz programs (the Python bindings are python-graphviz)",
  pandoc: "a Haskell program",
  nodejs: "a JavaScript runtime",
  ffmpeg: "a C program",
  ghostscript: "a C program",
  inkscape: "a program",
  "texlive-core": "TeX",
  "pkg-config": "a build tool",
  qhull: "a C library",
  freetype: "a C library",
  cairo: "a C library",
  tk: "a C library",
  eccodes: "a C library (the Python bindings are python-eccodes)",
  gdal: "a C library (rasterio's wheels bundle it)",
  geos: "a C library (shapely's wheels bundle it)",
  proj: "a C library (pyproj's wheels bundle it)",
  "conda-forge": "a channel name, not a package",
  defaults: "a channel name, not a package",
};
