// A small JSON client for the API, as a rider's app would call it. The partner side uses the
// published partner client (clients/typescript), which scripts/bench.mjs hands to the scenarios.

export function apiClient(baseUrl, token) {
  async function call(method, path, body) {
    const response = await fetch(`${baseUrl}/api/v1${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    let json = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = text;
    }
    return { status: response.status, headers: response.headers, body: json };
  }
  return {
    get: (path) => call('GET', path),
    post: (path, body) => call('POST', path, body),
    put: (path, body) => call('PUT', path, body),
  };
}

export const ACCRA = {
  makola: { lat: 5.5497, lng: -0.2096 },
  airport: { lat: 5.6052, lng: -0.1668 },
  // Far from every bench rider: bookings here stay pending and are offered to nobody.
  kumasi: { lat: 6.6885, lng: -1.6244 },
  kumasiDrop: { lat: 6.7, lng: -1.61 },
};

/** Greater Accra, from Kasoa's edge to Tema: where the city scenario's riders wait and ride. */
export const ACCRA_BOUNDS = { south: 5.53, north: 5.7, west: -0.32, east: -0.05 };

export function bookingBody(pickup = ACCRA.makola, dropoff = ACCRA.airport) {
  return {
    pickup_address: 'Makola Market, Accra',
    pickup_lat: pickup.lat,
    pickup_lng: pickup.lng,
    dropoff_address: 'Kotoka International Airport, Accra',
    dropoff_lat: dropoff.lat,
    dropoff_lng: dropoff.lng,
    package_size: 'small',
    recipient_name: 'Ama Serwaa Mensah',
    recipient_phone: '+233241234567',
    payment_method: 'gateway',
  };
}

/** Books with the partner client; anything but 201 throws its PartnerApiError. */
export async function book(partner, body = bookingBody()) {
  return partner.deliveries.create(body);
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
