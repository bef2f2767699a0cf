/** Money is integer pesewas inside the service and cedis with two decimals outside. */
export type Pesewas = number;

export function cedisToPesewas(cedis: number): Pesewas {
  return Math.round(cedis * 100);
}

export function pesewasToCedis(pesewas: Pesewas): number {
  return Math.round(pesewas) / 100;
}
