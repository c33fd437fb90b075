from flask import Blueprint

bp = Blueprint("tables", __name__)


@bp.get("/tables/new")
def new():
    return "todo"


@bp.get("/t/<token>")
def show(token):
    return "todo"
