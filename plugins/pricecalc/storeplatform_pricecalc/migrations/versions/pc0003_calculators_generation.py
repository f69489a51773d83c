"""the ``pricecalc`` generation: bumped by every committed change of the calculators

Revision ID: pc0003
Revises: pc0002

A product and its calculator, as priced by ``calculate``, are kept per process by this
generation and the host's ``store`` generation (products). It depends on sp0004, which made the
generations table and the function the triggers call.

The triggers are now made by ``storeplatform migrate`` from the model's declaration
(``Table.info["generation"]``, next to the model): this revision stays in the history and does
nothing.
"""

revision = 'pc0003'
down_revision = 'pc0002'
branch_labels = None
depends_on = 'sp0004'


def upgrade():
    pass


def downgrade():
    pass
