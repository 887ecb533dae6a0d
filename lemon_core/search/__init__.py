"""What agents see of the catalog: the relevance index (``find_relevant``), the prompt listing
and the ``read_skill`` views (``skill://`` resolution included).
"""
